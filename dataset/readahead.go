package dataset

import "io"

// readAheadBlock is the size of one block read ahead.
const readAheadBlock = 1 << 18

// readAhead reads r in a goroutine, up to two blocks ahead of the caller, so
// that decompressing a file overlaps with parsing it. Close stops the
// goroutine; it must be called before r is closed.
type readAhead struct {
	full  chan readAheadBlockData // blocks read, with the error that ended reading
	free  chan []byte             // blocks to read into
	done  chan struct{}
	exit  chan struct{}
	cur   []byte // the unread part of the current block
	block []byte // the current block, returned to free when read
	err   error
}

type readAheadBlockData struct {
	buf []byte
	err error
}

func newReadAhead(r io.Reader) *readAhead {
	ra := &readAhead{
		full: make(chan readAheadBlockData, 2),
		free: make(chan []byte, 3),
		done: make(chan struct{}),
		exit: make(chan struct{}),
	}
	for range 3 {
		ra.free <- make([]byte, readAheadBlock)
	}
	go func() {
		defer close(ra.exit)
		for {
			var buf []byte
			select {
			case buf = <-ra.free:
			case <-ra.done:
				return
			}
			n := 0
			var err error
			for n < len(buf) && err == nil {
				var m int
				m, err = r.Read(buf[n:])
				n += m
			}
			select {
			case ra.full <- readAheadBlockData{buf[:n], err}:
			case <-ra.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

// Read implements io.Reader.
func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.block != nil {
			ra.free <- ra.block[:cap(ra.block)]
			ra.block = nil
		}
		b := <-ra.full
		ra.block, ra.cur, ra.err = b.buf, b.buf, b.err
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

// Close stops the reading goroutine and waits for it to exit.
func (ra *readAhead) Close() error {
	close(ra.done)
	<-ra.exit
	return nil
}
