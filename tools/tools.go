//go:build tools

// Package tools keeps go-task's requirement in go.mod: the task command
// (task/) builds go-task by its package path instead of importing it, so
// without this import `go mod tidy` would drop the pin.
package tools

import _ "github.com/go-task/task/v3/cmd/task"
