//go:build !unix

package bench

import "syscall"

// rawStep is unused where raw file descriptors are not Unix ones.
type rawStep struct{}

// writeThenRead leaves everything to the plain path.
func (*rawStep) writeThenRead(_ syscall.RawConn, out, _ []byte) (int, []byte, error) {
	return 0, out, nil
}
