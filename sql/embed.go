// Package sqlfiles holds the database migrations as embedded files.
//
// The files live next to this package because go:embed cannot reach parent
// directories; everything that applies migrations reads them from Migrations.
package sqlfiles

import "embed"

// Migrations holds the golang-migrate pairs NNNNNN_name.{up,down}.sql.
//
//go:embed migrations/*.sql
var Migrations embed.FS
