package core_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// FailNow (and so require's checks, t.Fatal and t.Skip) must run on the
// goroutine of the test, not on one the test starts, nor on a fiber, which
// is a goroutine of its own: elsewhere it ends that goroutine, not the test.
// This reads the package's tests and reports every such call made from the
// body of a go statement or of a func literal handed to the loop as a
// callback, so that a new one fails here instead of misbehaving on the day
// its check fails.
func TestNoFailNowOffTheTestGoroutine(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("listing the tests: %v (%d files)", err, len(files))
	}
	// Calls whose func arguments run on a fiber or another goroutine: the
	// loop's callbacks, and sync.WaitGroup.Go and time.AfterFunc.
	callbacks := map[string]bool{
		"Defer": true, "Delay": true, "Repeat": true, "OnReadable": true, "OnWritable": true,
		"OnSignal": true, "Queue": true, "Post": true, "Await": true, "SetErrorHandler": true,
		"Go": true, "AfterFunc": true,
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				reportFailNow(t, fset, n.Call.Fun, "a go statement")
				for _, arg := range n.Call.Args {
					reportFailNow(t, fset, arg, "a go statement")
				}
				return false
			case *ast.CallExpr:
				var method string
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					method = fn.Sel.Name
				case *ast.IndexExpr: // core.Await[T]
					if sel, ok := fn.X.(*ast.SelectorExpr); ok {
						method = sel.Sel.Name
					}
				}
				if callbacks[method] {
					for _, arg := range n.Args {
						if _, ok := arg.(*ast.FuncLit); ok {
							reportFailNow(t, fset, arg, "a callback of "+method)
						}
					}
				}
			}
			return true
		})
	}
}

// reportFailNow reports the calls in n that may end the calling goroutine
// through FailNow.
func reportFailNow(t *testing.T, fset *token.FileSet, n ast.Node, where string) {
	t.Helper()
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch {
		case x.Name == "require",
			sel.Sel.Name == "FailNow", sel.Sel.Name == "Fatal", sel.Sel.Name == "Fatalf",
			sel.Sel.Name == "Skip", sel.Sel.Name == "Skipf", sel.Sel.Name == "SkipNow":
			t.Errorf("%s: %s.%s in %s: it calls FailNow off the test's goroutine; hand the result to the test's goroutine and check it there (or use assert / t.Error)",
				fset.Position(call.Pos()), x.Name, sel.Sel.Name, where)
		}
		return true
	})
}
