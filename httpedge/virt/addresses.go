package virt

import (
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/httpedge/api"
)

// PTRRequest is the body of PUT .../addresses/{address}/ptr.
type PTRRequest struct {
	// PTR is the address's reverse DNS name; "" clears it.
	PTR string `json:"ptr" openapi:"required,limit=address.ptr" doc:"a host name such as host.example.com (a final dot is dropped, stored in lower case); empty clears it"`
}

// PTRDescription is what the document says of the reverse name's routes.
const PTRDescription = "Sets the reverse DNS name (PTR record) of one of the addresses the machine holds from the IP pools (an IPv6 prefix is named by its first address or the machine's ::1 in it), " +
	"shown as ptr in the machine's addresses; an empty ptr clears it. The name must be a host name (400 otherwise). " +
	"When the server pushes reverse names to a PowerDNS server (VMPLANE_PDNS_URL), the name goes there first, into the longest reverse zone (in-addr.arpa, ip6.arpa) that holds the address: " +
	"a server without such a zone is 409 dns_zone_missing, a server that is down or refuses it 503 dns_unavailable, and either way nothing is stored. " +
	"The name is cleared (and deleted from the DNS server) when the machine releases the address. An address the machine does not hold is 404."

// AddressRoutes are the routes of one machine's addresses under vm (a machine's path,
// whose parameter param names it), for access, with query declared and the tenant
// scope the caller has.
func AddressRoutes(vm, param, tag string, access api.Access, query map[string]string, svc api.Services, scope func(*api.Call) (*string, error)) []api.Route {
	h := addressHandlers{svc: svc, param: param, scope: scope}
	return []api.Route{
		{Method: "PUT", Path: vm + "/addresses/{address}/ptr", Access: access, Handler: h.setPTR, Tag: tag, Query: query,
			Summary: "Set the reverse DNS name of one of the machine's addresses", Body: PTRRequest{}, Reply: machines.Machine{},
			Description: PTRDescription},
	}
}

// addressHandlers serve AddressRoutes.
type addressHandlers struct {
	svc   api.Services
	param string
	scope func(*api.Call) (*string, error)
}

func (h addressHandlers) setPTR(c *api.Call) (any, error) {
	scope, err := h.scope(c)
	if err != nil {
		return nil, err
	}
	// The machine first: an unknown one (or another tenant's) is a 404 whatever the body.
	if _, err := h.svc.Machines.Get(c.Context(), c.Param(h.param), scope); err != nil {
		return nil, err
	}
	var b PTRRequest
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return h.svc.Machines.ChangeAddresses(c.Context(), c.Param(h.param), scope, machines.AddressChange{Address: c.Param("address"), PTR: b.PTR})
}
