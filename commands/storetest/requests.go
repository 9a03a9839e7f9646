package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/commands"
)

func testSubmitGet(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	p := request("r1", clock())
	if _, ok, err := s.Get(t.Context(), p.ID); ok || err != nil {
		t.Fatalf("Get before Submit = ok %v, %v; want not found", ok, err)
	}
	submit(t, s, p)
	want := commands.Record{Pending: p, State: commands.StatePending}
	if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
		t.Errorf("Get after Submit (-want +got):\n%s", diff)
	}
	other := request("r1", p.Created.Add(time.Hour))
	other.Requester = "U0SOMEONEELSE"
	if err := s.Submit(t.Context(), other); err == nil {
		t.Error("Submit of an existing ID succeeded, want an error")
	}
	if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
		t.Errorf("Get after a second Submit of the ID (-want +got):\n%s", diff)
	}
}

func testAttach(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	p := request("r1", clock())
	submit(t, s, p)
	ref := commands.MessageRef{Channel: "C0OPS", TS: "1712345678.000100"}
	if err := s.Attach(t.Context(), p.ID, ref); err != nil {
		t.Fatalf("Attach: %v", err)
	}
	if got := get(t, s, p.ID).Message; got != ref {
		t.Errorf("Message after Attach = %+v, want %+v", got, ref)
	}
	if err := s.Attach(t.Context(), "nosuch", ref); err == nil {
		t.Error("Attach to an unknown request succeeded, want an error")
	}
}

func testApproveNofM(t *testing.T, open func(t *testing.T) commands.Store) {
	for need := 1; need <= 3; need++ {
		t.Run(fmt.Sprintf("need%d", need), func(t *testing.T) {
			s := open(t)
			now := clock()
			p := request("r1", now)
			submit(t, s, p)
			var who []string
			for i := 1; i < need; i++ {
				who = append(who, fmt.Sprintf("U0ADMIN%d", i))
				rec := approve(t, s, p, who[i-1], need, now.Add(time.Duration(i)*time.Minute), commands.ApproveCounted)
				want := commands.Record{Pending: p, State: commands.StatePending, Approvers: who}
				if diff := cmp.Diff(want, rec, opts); diff != "" {
					t.Fatalf("record after approval %d of %d (-want +got):\n%s", i, need, diff)
				}
			}
			last := fmt.Sprintf("U0ADMIN%d", need)
			at := now.Add(time.Hour)
			rec := approve(t, s, p, last, need, at, commands.ApproveRun)
			want := commands.Record{Pending: p, State: commands.StateRunning,
				Approvers: append(who, last), DecidedBy: last, DecidedAt: at}
			if diff := cmp.Diff(want, rec, opts); diff != "" {
				t.Fatalf("record after the last approval (-want +got):\n%s", diff)
			}
			rec.Approvers[0] = "U0MUTATED"
			if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
				t.Fatalf("Get after the last approval (-want +got):\n%s", diff)
			}
			approve(t, s, p, "U0LATECOMER", need, at.Add(time.Minute), commands.ApproveClosed)
			approve(t, s, p, last, need, at.Add(time.Minute), commands.ApproveClosed)
			if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
				t.Errorf("Get after late clicks (-want +got):\n%s", diff)
			}
		})
	}
}

func testApproveDuplicates(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	p := request("r1", now)
	submit(t, s, p)
	approve(t, s, p, "U0ADA", 3, now, commands.ApproveCounted)
	rec := approve(t, s, p, "U0ADA", 3, now.Add(time.Second), commands.ApproveDuplicate)
	if diff := cmp.Diff([]string{"U0ADA"}, rec.Approvers); diff != "" || rec.State != commands.StatePending {
		t.Fatalf("after a duplicate: state %s, approvers (-want +got):\n%s", rec.State, diff)
	}
	approve(t, s, p, "U0BOB", 3, now.Add(2*time.Second), commands.ApproveCounted)
	approve(t, s, p, "U0ADA", 3, now.Add(3*time.Second), commands.ApproveDuplicate)
	approve(t, s, p, "U0BOB", 3, now.Add(4*time.Second), commands.ApproveDuplicate)
	rec = approve(t, s, p, "U0CYD", 3, now.Add(5*time.Second), commands.ApproveRun)
	if diff := cmp.Diff([]string{"U0ADA", "U0BOB", "U0CYD"}, rec.Approvers); diff != "" {
		t.Errorf("approvers after the run (-want +got):\n%s", diff)
	}
	if rec.DecidedBy != "U0CYD" || !rec.DecidedAt.Equal(now.Add(5*time.Second)) {
		t.Errorf("decided by %q at %v, want U0CYD at %v", rec.DecidedBy, rec.DecidedAt, now.Add(5*time.Second))
	}
}

func testApproveUnknown(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	p := request("from-before-a-restart", now.Add(-time.Hour))
	rec := approve(t, s, p, "U0ADA", 2, now, commands.ApproveCounted)
	want := commands.Record{Pending: p, State: commands.StatePending, Approvers: []string{"U0ADA"}}
	if diff := cmp.Diff(want, rec, opts); diff != "" {
		t.Fatalf("record after approving an unknown request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" {
		t.Fatalf("Get after approving an unknown request (-want +got):\n%s", diff)
	}
	q := request("another", now.Add(-time.Hour))
	rec = approve(t, s, q, "U0BOB", 1, now, commands.ApproveRun)
	want = commands.Record{Pending: q, State: commands.StateRunning, Approvers: []string{"U0BOB"}, DecidedBy: "U0BOB", DecidedAt: now}
	if diff := cmp.Diff(want, rec, opts); diff != "" {
		t.Errorf("unknown request approved with need 1 (-want +got):\n%s", diff)
	}
}

func testApproveExpiry(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	p := request("r1", clock())
	submit(t, s, p)
	approve(t, s, p, "U0ADA", 2, p.Expires.Add(-time.Microsecond), commands.ApproveCounted)
	rec := approve(t, s, p, "U0BOB", 2, p.Expires, commands.ApproveExpired)
	want := commands.Record{Pending: p, State: commands.StateExpired, Approvers: []string{"U0ADA"}, DecidedAt: p.Expires}
	if diff := cmp.Diff(want, rec, opts); diff != "" {
		t.Fatalf("record after approving at the expiry (-want +got):\n%s", diff)
	}
	approve(t, s, p, "U0CYD", 2, p.Expires.Add(time.Second), commands.ApproveClosed)
	if got, err := s.ClaimExpired(t.Context(), p.Expires.Add(time.Hour), 0); err != nil || len(got) != 0 {
		t.Errorf("ClaimExpired after an expired approval = %d records, %v; want none (told once)", len(got), err)
	}

	q := request("r2", clock())
	approve(t, s, q, "U0ADA", 1, q.Expires.Add(time.Hour), commands.ApproveExpired)
	r := request("r3", clock())
	submit(t, s, r)
	approve(t, s, r, "U0ADA", 1, r.Expires.Add(-time.Microsecond), commands.ApproveRun)
}

func testEnd(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	for _, to := range []commands.State{commands.StateDenied, commands.StateCancelled, commands.StateExpired} {
		p := request("r-"+string(to), now)
		submit(t, s, p)
		approve(t, s, p, "U0ADA", 2, now, commands.ApproveCounted)
		rec, ended, err := s.End(t.Context(), p, to, "U0BOB", now.Add(time.Minute))
		want := commands.Record{Pending: p, State: to, Approvers: []string{"U0ADA"}, DecidedBy: "U0BOB", DecidedAt: now.Add(time.Minute)}
		if err != nil || !ended {
			t.Fatalf("End(%s) = ended %v, %v; want ended", to, ended, err)
		}
		if diff := cmp.Diff(want, rec, opts); diff != "" {
			t.Fatalf("record after End(%s) (-want +got):\n%s", to, diff)
		}
		rec, ended, err = s.End(t.Context(), p, commands.StateCancelled, p.Requester, now.Add(time.Hour))
		if err != nil || ended {
			t.Fatalf("second End after %s = ended %v, %v; want not ended", to, ended, err)
		}
		if diff := cmp.Diff(want, rec, opts); diff != "" {
			t.Errorf("record from a second End (-want +got):\n%s", diff)
		}
		approve(t, s, p, "U0CYD", 2, now.Add(time.Hour), commands.ApproveClosed)
	}

	p := request("running", now)
	approve(t, s, p, "U0ADA", 1, now, commands.ApproveRun)
	if rec, ended, err := s.End(t.Context(), p, commands.StateDenied, "U0BOB", now); err != nil || ended || rec.State != commands.StateRunning {
		t.Errorf("End of a running request = %s, ended %v, %v; want running, not ended", rec.State, ended, err)
	}
	q := request("bad-target", now)
	submit(t, s, q)
	if _, _, err := s.End(t.Context(), q, commands.StateDone, "U0BOB", now); err == nil {
		t.Error("End to done succeeded, want an error")
	}
	if got := get(t, s, q.ID).State; got != commands.StatePending {
		t.Errorf("state after End to done = %s, want pending", got)
	}
}

func testEndUnknown(t *testing.T, open func(t *testing.T) commands.Store) {
	s := open(t)
	now := clock()
	p := request("from-before-a-restart", now.Add(-time.Hour))
	rec, ended, err := s.End(t.Context(), p, commands.StateDenied, "U0ADA", now)
	if err != nil || !ended {
		t.Fatalf("End of an unknown request = ended %v, %v; want ended", ended, err)
	}
	want := commands.Record{Pending: p, State: commands.StateDenied, DecidedBy: "U0ADA", DecidedAt: now}
	if diff := cmp.Diff(want, get(t, s, p.ID), opts); diff != "" || rec.State != commands.StateDenied {
		t.Errorf("Get after End of an unknown request (-want +got):\n%s", diff)
	}
}
