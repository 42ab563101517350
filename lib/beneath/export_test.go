package beneath

// FD is the directory's descriptor, for the tests.
func (d *Dir) FD() int { return d.fd }
