//go:build unix

package replay

import (
	"syscall"
	"time"
)

// cpuTime is the user and system time the process has used: on a busy
// machine it says more about the cost of a step than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
