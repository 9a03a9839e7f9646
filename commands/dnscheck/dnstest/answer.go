package dnstest

import (
	"github.com/miekg/dns"
)

// maxChase bounds how many CNAMEs inside the zone one answer follows.
const maxChase = 8

// handler answers the queries that arrive over network ("udp" or "tcp").
func (s *Server) handler(network string) dns.Handler {
	return dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		if len(req.Question) != 1 {
			reply := new(dns.Msg)
			reply.SetRcode(req, dns.RcodeFormatError)
			_ = w.WriteMsg(reply)
			return
		}
		q := req.Question[0]
		name := fqdn(q.Name)
		rcode, drop, truncate := s.behaviour(Query{Name: name, Type: dns.TypeToString[q.Qtype], Net: network})
		if drop {
			return
		}
		reply := new(dns.Msg)
		reply.SetReply(req)
		reply.Authoritative = true
		reply.RecursionAvailable = true
		switch {
		case rcode != dns.RcodeSuccess:
			reply.Rcode = rcode
		case truncate && network == "udp":
			reply.Truncated = true
		default:
			reply.Answer, reply.Rcode = s.lookup(name, q.Qtype)
		}
		_ = w.WriteMsg(reply)
	})
}

// behaviour records the query and says how to treat it: the response code
// a knob forces (RcodeSuccess when none does), whether to drop it, and
// whether to truncate it over UDP.
func (s *Server) behaviour(q Query) (rcode int, drop, truncate bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, q)
	switch {
	case s.dropAll || s.drop[q.Name]:
		return dns.RcodeSuccess, true, false
	case s.nxdomain[q.Name]:
		rcode = dns.RcodeNameError
	case s.servfail[q.Name]:
		rcode = dns.RcodeServerFailure
	case s.refused[q.Name]:
		rcode = dns.RcodeRefused
	}
	return rcode, false, s.truncateAll || s.truncate[q.Name]
}

// lookup looks name up in the zone: the records of type qtype, after the
// CNAMEs that lead there when qtype is not CNAME itself, and NXDOMAIN for a
// name that does not exist.
func (s *Server) lookup(name string, qtype uint16) ([]dns.RR, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists[name] {
		return nil, dns.RcodeNameError
	}
	var out []dns.RR
	for range maxChase {
		var cname *dns.CNAME
		for _, rr := range s.records[name] {
			if rr.Header().Rrtype == qtype {
				out = append(out, dns.Copy(rr))
			} else if c, ok := rr.(*dns.CNAME); ok {
				cname = c
			}
		}
		if cname == nil || qtype == dns.TypeCNAME || qtype == dns.TypeANY {
			break
		}
		out = append(out, dns.Copy(cname))
		name = fqdn(cname.Target)
	}
	return out, dns.RcodeSuccess
}
