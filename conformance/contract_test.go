//go:build unix || windows

// Only where the fd cases exist (unix, and Windows over loopback TCP):
// elsewhere they are replaced by one skipping placeholder, which the
// table does not name.

package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The table is the contract, word for word and in order: a sentence added
// to, changed in or removed from the doc comment of driver.Driver fails
// here until the table follows.
func TestContractTableIsTheDriverDoc(t *testing.T) {
	want := strings.Fields(driverDoc(t))
	var got []string
	for _, row := range contract {
		got = append(got, strings.Fields(row.Sentence)...)
	}
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			t.Fatalf("the table departs from the doc comment of driver.Driver at word %d:\n table: %s\n   doc: %s",
				i, words(got, i), words(want, i))
		}
	}
}

// Every case the table names exists, and every driver-level case checks
// some part of the contract: a case renamed or added fails here until the
// table follows.
func TestContractTableNamesEveryDriverCase(t *testing.T) {
	var driverCases []string
	for _, c := range DriverCases() {
		driverCases = append(driverCases, c.Name)
	}
	for _, c := range driverFactoryCases() {
		driverCases = append(driverCases, c.Name)
	}
	loopCases := make(map[string]bool)
	for _, c := range LoopCases() {
		loopCases[c.Name] = true
	}
	for _, c := range loopFactoryCases() {
		loopCases[c.Name] = true
	}
	exists := make(map[string]bool)
	for _, name := range driverCases {
		exists[name] = true
	}
	named := make(map[string]bool)
	for _, row := range contract {
		switch {
		case len(row.Cases) == 0 && row.Uncovered == "":
			t.Errorf("%q: no case checks it, and Uncovered does not say why", row.Sentence)
		case len(row.Cases) > 0 && row.Uncovered != "":
			t.Errorf("%q: has cases, and yet says why it has none: %q", row.Sentence, row.Uncovered)
		}
		for _, name := range row.Cases {
			if !exists[name] && contractLeftOut[name] == "" {
				t.Errorf("%q: no driver-level case is named %s", row.Sentence, name)
			}
			named[name] = true
		}
		for _, name := range row.LoopCases {
			if !loopCases[name] && contractLeftOut[name] == "" {
				t.Errorf("%q: no loop-level case is named %s", row.Sentence, name)
			}
		}
	}
	for name, why := range contractLeftOut {
		if exists[name] || loopCases[name] {
			t.Errorf("case %s runs here, and yet contractLeftOut says it cannot: %q", name, why)
		}
	}
	for _, name := range driverCases {
		if !named[name] {
			t.Errorf("driver-level case %s checks no sentence of the contract table", name)
		}
	}
}

// driverDoc returns the doc comment of driver.Driver, from its source.
func driverDoc(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "driver", "driver.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			if ts := spec.(*ast.TypeSpec); ts.Name.Name == "Driver" {
				doc := ts.Doc
				if doc == nil {
					doc = gd.Doc
				}
				if doc == nil {
					t.Fatalf("%s: type Driver has no doc comment", path)
				}
				return doc.Text()
			}
		}
	}
	t.Fatalf("%s: no type Driver", path)
	return ""
}

// words shows ws around index i.
func words(ws []string, i int) string {
	from, to := max(i-6, 0), min(i+6, len(ws))
	if from >= to {
		return "(end)"
	}
	return strings.Join(ws[from:to], " ")
}
