package eventloop

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every relative link of the README and docs/ reaches a file, and every
// anchor a heading of it, as GitHub renders them: the README is short and
// points into docs/, so a link broken by a move or a renamed heading
// would strand the reader.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md", "CONTRIBUTING.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			body, err := os.ReadFile(dest)
			if err != nil {
				if st, serr := os.Stat(dest); serr == nil && st.IsDir() && anchor == "" {
					continue
				}
				t.Errorf("%s: link %q: %v", f, target, err)
				continue
			}
			if anchor != "" && !hasAnchor(string(body), anchor) {
				t.Errorf("%s: link %q: %s has no heading with that anchor", f, target, dest)
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative link found: the README points into docs/")
	}
}

// stripCode drops fenced code blocks, whose brackets are Go, not links.
func stripCode(s string) string {
	var out strings.Builder
	in := false
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			out.WriteString(line)
		}
	}
	return out.String()
}

// hasAnchor reports whether a heading of the markdown s has the anchor
// GitHub gives it: lower case, punctuation dropped, spaces as hyphens.
func hasAnchor(s, anchor string) bool {
	for line := range strings.Lines(stripCode(s)) {
		text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(text)) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				slug.WriteRune(r)
			}
		}
		if slug.String() == anchor {
			return true
		}
	}
	return false
}
