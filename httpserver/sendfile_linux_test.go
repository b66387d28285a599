package httpserver

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// readCalls is the process's read-like system calls so far (syscr of
// /proc/self/io: read(2), readv(2), pread(2), sendfile(2) and the like).
func readCalls(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "syscr: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no syscr in /proc/self/io")
	return 0
}

// A 5 MiB file leaves in the kernel, from http.FileServer (ServeContent
// hands ReadFrom the *os.File inside an io.LimitedReader) and from a
// handler's io.Copy (os.File's WriteTo falls back to ReadFrom with the
// file behind a wrapper that hides its WriteTo): curl, in a process of
// its own, fetches it while this process makes a few more read-like
// system calls than for a 1-byte file (sendfile(2) calls, and what the
// curl process costs its parent), where a copy through user space makes
// one read(2) of the file per 32 KiB, 160 more.
func TestFileServerSendfile(t *testing.T) {
	watchdog(t, time.Minute)
	curl := lookTool(t, "curl")
	const size = 5 << 20
	dir, _ := staticDir(t, size, 1)
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	mux.HandleFunc("/copy/", func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(dir, strings.TrimPrefix(r.URL.Path, "/copy/")))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		// A length: a chunked body is copied.
		w.Header().Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
		io.Copy(w, f)
	})
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: mux})
		for _, prefix := range []string{"/", "/copy/"} {
			fetch := func(n int) int64 {
				url := ts.url + prefix + strconv.Itoa(n)
				before := readCalls(t)
				out := runTool(t, 30*time.Second, curl, "-sSf", "-o", os.DevNull, "-w", "%{size_download}", url)
				calls := readCalls(t) - before
				if out != strconv.Itoa(n) {
					t.Fatalf("curl downloaded %q bytes from %s, want %d", out, url, n)
				}
				return calls
			}
			fetch(size) // warm: the page cache
			small, big := fetch(1), fetch(size)
			t.Logf("%s: read-like system calls: %d for 1 byte, %d for %d MiB", prefix, small, big, size>>20)
			if big-small > 40 {
				t.Errorf("%s: %d read-like system calls for %d MiB, %d for 1 byte: the file was copied through user space", prefix, big, size>>20, small)
			}
		}
	})
}
