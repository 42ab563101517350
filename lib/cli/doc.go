// Package cli holds what every ctx-VERB program shares: flag parsing with
// CTX_ environment variables, usage text, the message format, typed exit
// codes, output decoration by terminal detection, store discovery and the
// lookup path for ctx-* programs.
//
// It must never hold capability logic: it parses, prints and maps errors to
// exit codes, and leaves the work to the lib/ capability packages.
package cli
