// Package pack turns an execution log (a JSON document or an NDJSON event
// stream) into a pack manifest, and reads manifests back. It owns the
// manifest types every capability shares, the validation of logs with a JSON
// path for every problem, and the canonical encoding the pack hash is taken
// over.
//
// It must never add anything machine-specific to a manifest (absolute paths,
// the time of packing, the version of ctx), never store an object before the
// whole log has been validated, and never read a file outside the root a log
// was given.
package pack
