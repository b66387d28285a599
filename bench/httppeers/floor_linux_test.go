//go:build linux

package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// floorForTest serves the floor with two loops on a free loopback port
// until the test ends.
func floorForTest(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f, err := startFloor(netip.MustParseAddrPort(addr), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		select {
		case err := <-f.errc:
			t.Errorf("a loop failed: %v", err)
		default:
		}
	})
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the floor does not listen on %s: %v", addr, err)
		}
	}
}

// The floor answers as a server would, to net/http's client: a
// keep-alive GET gets "Hello, World!" with its Date, the same bytes
// package httpserver sends.
func TestFloorAnswersNetHTTP(t *testing.T) {
	addr := floorForTest(t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	for i := range 3 {
		resp, err := cl.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(body) != "Hello, World!" || resp.StatusCode != 200 || resp.Close {
			t.Fatalf("request %d: %d %q close=%v: %v", i, resp.StatusCode, body, resp.Close, err)
		}
		if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil {
			t.Errorf("Date %q: %v", resp.Header.Get("Date"), err)
		}
		if got := resp.Header.Get("Content-Type"); got != "text/plain; charset=utf-8" {
			t.Errorf("Content-Type %q", got)
		}
	}
}

// Pipelined heads, the last split over two writes inside its end, are
// answered one answer each; "Connection: close" (any case) is answered
// with it and then the conn ends.
func TestFloorPipelinedAndClose(t *testing.T) {
	addr := floorForTest(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	req := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
	if _, err := io.WriteString(c, req+req+"GET / HTTP/1.1\r\nHost: x\r\n\r"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	readAnswers(t, br, 2, false)
	time.Sleep(20 * time.Millisecond) // so that the rest is another read
	if _, err := io.WriteString(c, "\n"+"GET / HTTP/1.1\r\nHost: x\r\nconnection: Close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	readAnswers(t, br, 1, false)
	readAnswers(t, br, 1, true)
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("after the close: %d bytes, %v; want EOF", n, err)
	}
}

func readAnswers(t *testing.T, br *bufio.Reader, n int, closing bool) {
	t.Helper()
	for range n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || string(body) != "Hello, World!" {
			t.Fatalf("body %q: %v", body, err)
		}
		if resp.Close != closing { // "Connection: close", which ReadResponse takes out of the header
			t.Fatalf("close=%v; want %v", resp.Close, closing)
		}
	}
}
