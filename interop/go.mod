module github.com/revoltgo/eventloop/interop

go 1.26.0

replace github.com/revoltgo/eventloop => ../

require (
	github.com/coder/websocket v1.8.15
	github.com/gorilla/websocket v1.5.3
	github.com/revoltgo/eventloop v0.0.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.50.0
)
