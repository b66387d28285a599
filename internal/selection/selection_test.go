package selection

import (
	"slices"
	"testing"
)

// The lists the root package reads must agree with each other on every
// build: what is offered can be made and names itself by its selection
// name, and the tag names a known driver.
func TestOfferedAreKnownAndMadeByName(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Offered() {
		if seen[name] {
			t.Errorf("%q is offered twice", name)
		}
		seen[name] = true
		if !Known(name) || !Offers(name) {
			t.Errorf("%q is offered but Known = %v, Offers = %v", name, Known(name), Offers(name))
		}
		d, err := New(name)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		if got := d.Name(); got != name {
			t.Errorf("New(%q) made a driver named %q", name, got)
		}
		if err := d.Close(); err != nil {
			t.Errorf("Close of %q: %v", name, err)
		}
	}
	if Tag != "" && !Known(Tag) {
		t.Errorf("the build tag names %q, which is no driver", Tag)
	}
}

func TestOfferedIsACopy(t *testing.T) {
	a := Offered()
	if len(a) == 0 {
		t.Skip("this platform offers no driver")
	}
	a[0] = "changed"
	if slices.Contains(Offered(), "changed") {
		t.Error("Offered returned the package's own slice")
	}
}

func TestNewUnknownNameFails(t *testing.T) {
	if Known("select") {
		t.Fatal(`"select" is known`)
	}
	d, err := New("select")
	if err == nil || d != nil {
		t.Fatalf("New(%q) = %v, %v; want nil and an error", "select", d, err)
	}
}
