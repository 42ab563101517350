// Package ptytest opens pseudo-terminals for tests of what a program does
// when a stream of it is a terminal (never linked into ctx).
package ptytest
