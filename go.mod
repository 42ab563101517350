module github.com/contextsubstrate/ctx

go 1.25

require (
	github.com/itchyny/gojq v0.12.20
	github.com/mattn/go-isatty v0.0.24
	github.com/peterbourgon/ff/v3 v3.4.0
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.41.0
)

require (
	github.com/itchyny/timefmt-go v0.1.9 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
