// Package bundle moves packs between stores as a tar stream: Export writes
// the closures of some packs (every object each manifest names, the
// manifests, and one index entry per pack) and Import stores such a stream.
//
// The stream's entries have the store's own names (objects/ab/cdef...,
// packs/<hex>), so a bundle is also readable with tar(1). Export must never
// put a damaged object in a stream whole, and must give the same bytes for
// the same packs from any store. Import must never store an object whose
// bytes do not hash to its name, never write anything outside the store
// whatever names the stream holds, never make any of a stream's objects
// visible unless the whole stream is good, and never index a pack whose
// objects are not durable.
package bundle
