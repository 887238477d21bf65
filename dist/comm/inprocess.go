package comm

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// RunInProcess runs f on n goroutine ranks joined by an in-process engine
// and waits for all of them. It returns nil when every rank returned nil,
// and otherwise an *AbortError naming the first rank that failed (returned
// an error, panicked or called Abort); the other ranks are released with an
// error, never left hanging.
func RunInProcess(n int, f func(c Comm) error) error {
	if n < 1 {
		return fmt.Errorf("comm: RunInProcess needs at least one rank, got %d", n)
	}
	w := &world{n: n, queues: map[mailbox]*queue{}, done: make([]bool, n)}
	w.cond = sync.NewCond(&w.mu)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(&local{w: w, rank: r}, f)
		}()
	}
	wg.Wait()
	if w.failed != nil {
		return w.failed
	}
	return nil
}

// world is the state shared by the ranks of one RunInProcess job. Every
// field below mu is guarded by it.
type world struct {
	n    int
	mu   sync.Mutex
	cond *sync.Cond

	queues map[mailbox]*queue
	done   []bool      // rank r's function has returned
	failed *AbortError // the first failure; non-nil releases every waiter
}

// mailbox is the address of a stream of messages. Collectives use tag
// collectiveTag, which user tags (>= 0) cannot reach.
type mailbox struct{ src, dst, tag int }

const collectiveTag = -1

// message is one payload in flight; call names the collective that sent it
// (empty for SendRecv), so that ranks calling different collectives get an
// error instead of each other's data.
type message struct {
	call string
	data []byte
}

type queue struct{ msgs []message }

// run executes f as rank c.rank and records how it ended.
func (w *world) run(c *local, f func(Comm) error) {
	returned := false
	defer func() {
		if p := recover(); p != nil {
			w.fail(c.rank, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		} else if !returned {
			// runtime.Goexit: Abort, or t.FailNow inside f.
			w.fail(c.rank, errors.New("the rank's goroutine exited without returning (Abort or runtime.Goexit)"))
		}
		w.mu.Lock()
		w.done[c.rank] = true
		w.cond.Broadcast()
		w.mu.Unlock()
	}()
	err := f(allReducer{c})
	returned = true
	if err != nil {
		w.fail(c.rank, err)
	}
}

// fail records the first failure and wakes every waiter.
func (w *world) fail(rank int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed == nil {
		w.failed = &AbortError{Rank: rank, Err: err}
		w.cond.Broadcast()
	}
}

// post appends a copy of data to the mailbox.
func (w *world) post(box mailbox, call string, data []byte) error {
	var cp []byte
	if len(data) > 0 {
		cp = make([]byte, len(data))
		copy(cp, data)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed != nil {
		return w.failed
	}
	q := w.queues[box]
	if q == nil {
		q = &queue{}
		w.queues[box] = q
	}
	q.msgs = append(q.msgs, message{call: call, data: cp})
	w.cond.Broadcast()
	return nil
}

// take waits for the next message in the mailbox. It fails when the job was
// aborted, when the sender has returned without sending, or when the sender
// was in a different collective.
func (w *world) take(box mailbox, call string) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if w.failed != nil {
			return nil, w.failed
		}
		if q := w.queues[box]; q != nil && len(q.msgs) > 0 {
			m := q.msgs[0]
			q.msgs[0] = message{}
			q.msgs = q.msgs[1:]
			if len(q.msgs) == 0 {
				delete(w.queues, box)
			}
			if m.call != call {
				return nil, fmt.Errorf("comm: rank %d called %s while rank %d called %s", box.dst, what(call, box.tag), box.src, what(m.call, box.tag))
			}
			return m.data, nil
		}
		if w.done[box.src] {
			return nil, fmt.Errorf("comm: rank %d waits in %s for rank %d, which has returned", box.dst, what(call, box.tag), box.src)
		}
		w.cond.Wait()
	}
}

// what names a call for error messages.
func what(call string, tag int) string {
	if call == "" {
		return fmt.Sprintf("SendRecv (tag %d)", tag)
	}
	return call
}

// local is one rank's Comm in an in-process job.
type local struct {
	w    *world
	rank int
}

func (c *local) Rank() int { return c.rank }
func (c *local) Size() int { return c.w.n }

func (c *local) SendRecv(send []byte, dst, src, tag int) ([]byte, error) {
	if err := checkSendRecv(dst, src, tag, c.w.n); err != nil {
		return nil, err
	}
	if err := c.w.post(mailbox{c.rank, dst, tag}, "", send); err != nil {
		return nil, err
	}
	return c.w.take(mailbox{src, c.rank, tag}, "")
}

func (c *local) AllToAllV(send [][]byte) ([][]byte, error) {
	if err := checkAllToAllV(send, c.w.n); err != nil {
		return nil, err
	}
	return c.allToAll("AllToAllV", send)
}

// allToAll posts send[i] to every rank i and collects one message from each.
func (c *local) allToAll(call string, send [][]byte) ([][]byte, error) {
	for i := range c.w.n {
		if err := c.w.post(mailbox{c.rank, i, collectiveTag}, call, send[i]); err != nil {
			return nil, err
		}
	}
	recv := make([][]byte, c.w.n)
	for i := range c.w.n {
		var err error
		if recv[i], err = c.w.take(mailbox{i, c.rank, collectiveTag}, call); err != nil {
			return nil, err
		}
	}
	return recv, nil
}

func (c *local) Broadcast(buf []byte, root int) ([]byte, error) {
	if err := checkPeer("Broadcast", "root", root, c.w.n); err != nil {
		return nil, err
	}
	const call = "Broadcast"
	if c.rank != root {
		return c.w.take(mailbox{root, c.rank, collectiveTag}, call)
	}
	for i := range c.w.n {
		if i != root {
			if err := c.w.post(mailbox{root, i, collectiveTag}, call, buf); err != nil {
				return nil, err
			}
		}
	}
	return buf, nil
}

func (c *local) Barrier() error {
	_, err := c.allToAll("Barrier", make([][]byte, c.w.n))
	return err
}

func (c *local) Abort(err error) {
	if err == nil {
		err = errors.New("Abort(nil)")
	}
	c.w.fail(c.rank, err)
	runtime.Goexit()
}
