//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// run replaces this process with go-task, so that signals, the exit status
// and the terminal are go-task's own.
func run(bin string, args []string) int {
	err := syscall.Exec(bin, append([]string{"task"}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "go tool task: cannot run %s: %v\n", bin, err)
	return 1
}
