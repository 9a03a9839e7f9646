package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient/mailcow/mailcowsim"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

const e2eDomAdmin = "UDOMSHOP"

// testE2ERoutes runs the built binary with two providers' sandboxes at
// once (PDD for every domain, mailcow for shop.example), an admin of
// shop.example only, and two replicas on one database: each command
// reaches its domain's provider and no other (the sandboxes' request
// counters); the domain admin runs an add on their domain without
// approval, and asks elsewhere as a member; their Approve on another
// domain's request is refused on either replica and changes nothing; an
// admin's runs it at PDD.
func testE2ERoutes(t *testing.T, bin string, cluster *pgtest.Cluster) {
	w := newWorld(t, bin)
	w.ownDomain("example.com")
	cow := mailcowsim.New()
	key := cow.NewAccount()
	cow.AddDomain("shop.example")
	srv := httptest.NewServer(cow)
	t.Cleanup(srv.Close)
	w.rec.keep(pddSecret{value: key, kind: "API key", target: "MAILCOW_API_KEY"})
	env := w.env(map[string]string{"MAILBOT_DATABASE_URL": cluster.NewDatabase(t), "MAILBOT_APPROVALS": "requests",
		"MAILBOT_ROUTES": "shop.example=mailcow", "MAILCOW_URL": srv.URL, "MAILCOW_API_KEY": key, "MAILCOW_MX": cow.Hostname(),
		"MAILBOT_DOMAIN_ADMINS": "shop.example=" + e2eDomAdmin})
	ps := w.serveTogether(env, "a", "b")
	a, b := ps[0], ps[1]

	pddAdds, cowBefore := w.sim.Requests(pddsim.OpAddMailbox), cow.Requests()
	id, _ := w.command(w.fake.Via(a.conn), e2eAdmin1, "/mailbox", "add carol@shop.example")
	if r := w.result(id).shown(); !strings.Contains(r, "carol@shop.example created") {
		t.Fatalf("an admin's add at shop.example:\n%s", r)
	}
	id, _ = w.command(w.fake.Via(b.conn), e2eDomAdmin, "/mailbox", "add dan@shop.example")
	if r := w.result(id).shown(); !strings.Contains(r, "dan@shop.example created") {
		t.Fatalf("the domain admin's add on their domain:\n%s", r)
	}
	if _, ok := cow.Mailbox("dan@shop.example"); !ok || w.sim.Requests(pddsim.OpAddMailbox) != pddAdds || cow.Requests() == cowBefore {
		t.Errorf("adds at shop.example: at mailcow %v; PDD adds %d (want none)", ok, w.sim.Requests(pddsim.OpAddMailbox)-pddAdds)
	}

	cowBefore = cow.Requests()
	w.command(w.fake.Via(a.conn), e2eDomAdmin, "/mailbox", "add eve@example.com new hire")
	req := w.waitRequest(1)
	for _, via := range []int{a.conn, b.conn} {
		answer := w.result(w.click(w.fake.Via(via), e2eDomAdmin, req, e2eApprove)).shown()
		if !strings.Contains(answer, "admin of some domains only") {
			t.Errorf("the domain admin's Approve of a request on example.com is answered:\n%s", answer)
		}
	}
	if n := w.sim.Requests(pddsim.OpAddMailbox) - pddAdds; n != 0 {
		t.Fatalf("refused clicks sent %d adds to PDD", n)
	}
	w.result(w.click(w.fake.Via(b.conn), e2eAdmin2, req, e2eApprove))
	if _, ok := w.sim.Mailbox("eve@example.com"); !ok || w.sim.Requests(pddsim.OpAddMailbox)-pddAdds != 1 {
		t.Errorf("after an admin's approval eve@example.com is at PDD: %v (%d adds)", ok, w.sim.Requests(pddsim.OpAddMailbox)-pddAdds)
	}
	if n := cow.Requests() - cowBefore; n != 0 {
		t.Errorf("the request on example.com sent %d requests to mailcow", n)
	}
}
