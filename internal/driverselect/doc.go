// Package driverselect reads the build's eventloop_<name> tag for package
// eventloop, which picks that driver by default. The tag is read in files
// picked by //go:build (tag_<name>.go), kept here so that the root
// package's directory holds its API rather than a file per tag.
//
// At most one eventloop_<name> tag may be set. Each tag file declares the
// same constant, so two tags stop the build with
// "at_most_one_eventloop_driver_build_tag redeclared".
package driverselect

// Tag is the driver named by the build's eventloop_<name> tag, or "" if it
// has none. It may name a driver the build does not offer
// (eventloop_kqueue on Linux without libkqueue): package eventloop then
// reports it unavailable.
const Tag = at_most_one_eventloop_driver_build_tag
