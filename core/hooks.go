package core

import "github.com/revoltgo/eventloop/internal/hooks"

func init() {
	hooks.SetNesting = func(loop any, nesting bool) { loop.(*Loop).nesting = nesting }
}
