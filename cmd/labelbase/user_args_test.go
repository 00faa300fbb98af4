package main

import (
	"errors"
	"testing"
)

// The user commands' arguments are checked before any database is opened:
// flags may stand before or after the EMAIL, and every command but list
// takes exactly one.
func TestParseUserArgs(t *testing.T) {
	t.Parallel()
	f, who, err := parseUserArgs("ban", []string{"ada@example.com", "--for", "1h"})
	if err != nil || who != "ada@example.com" || f.banFor != "1h" {
		t.Fatalf("ban EMAIL --for 1h: %+v, %q, %v", f, who, err)
	}
	f, who, err = parseUserArgs("list", []string{"--page", "3"})
	if err != nil || who != "" || f.page != 3 || f.perPage != 50 {
		t.Fatalf("list --page 3: %+v, %q, %v", f, who, err)
	}
	f, _, err = parseUserArgs("create", []string{"--unconfirmed", "a@b.c", "--password", "pw"})
	if err != nil || !f.unconfirmed || f.password != "pw" {
		t.Fatalf("create flags around the email: %+v, %v", f, err)
	}
	for _, args := range [][]string{
		{"frobnicate", "x"}, {"create"}, {"ban", "a@b.c", "extra"}, {"delete", "a@b.c", "--hard"}, {"list", "--page", "one"},
	} {
		var ue usageError
		if _, _, err := parseUserArgs(args[0], args[1:]); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v; want a usage error", args, err)
		}
	}
}
