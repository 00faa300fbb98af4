package main

import (
	"net"
	"testing"
)

func TestListenURL(t *testing.T) {
	cases := []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://localhost:8080"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://localhost:8080"},
		{&net.TCPAddr{Port: 9000}, "http://localhost:9000"},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8099}, "http://127.0.0.1:8099"},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 80}, "http://192.168.1.5:80"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://[::1]:8080"},
	}
	for _, c := range cases {
		if got := listenURL(c.addr); got != c.want {
			t.Errorf("listenURL(%v) = %q, want %q", c.addr, got, c.want)
		}
	}
}
