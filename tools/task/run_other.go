//go:build !unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// run starts go-task and waits for it; Ctrl-C reaches it directly, so this
// process ignores it and returns go-task's exit status.
func run(bin string, args []string) int {
	signal.Ignore(os.Interrupt)
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintf(os.Stderr, "go tool task: cannot run %s: %v\n", bin, err)
		return 1
	}
	return 0
}
