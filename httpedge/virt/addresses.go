package virt

import (
	"github.com/valyala/fasthttp"

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

// AddAddressDescription is what the document says of the route that adds an address.
const AddAddressDescription = "Gives the machine one more address from the IP pools usable on its node (the pools its other addresses are from first): " +
	"version 4 an IPv4 address (the one asked for in address, else the lowest free), version 6 a routed IPv6 /64. " +
	"A machine of a plan holds at most the plan's ipv4 addresses and, when the plan has ipv6_prefix, one prefix: one more is 409 conflict naming the plan's count. " +
	"A machine of no plan takes more from operators only (a tenant user gets 409); a machine that holds no address from the pools is 409 (its network is configured outside vmplane). No free address is 409 pool_exhausted; an address asked for that is held, or cooling down after its release, 409 address_taken; " +
	"one in no pool usable on the machine's node (or a pool's network, broadcast or gateway address) 422 address_unusable. " +
	"The allocation and the machine's record are written in one step, then the hypervisor is told the machine's whole set (Proxmox: the firewall's IP set; sim: net0). " +
	"Should the hypervisor refuse or be down, the answer is its error (503 unavailable, ...) and the address is released again; only when the hypervisor cannot be given the previous set either does the machine keep it " +
	"(listed in its addresses), so that no address the hypervisor may let through is ever free in a pool. " +
	"A machine with a task in progress is 409 operation_in_progress; one not made on the hypervisor 409 invalid_state. Answers 201 with the machine."

// AddAddressExempt is why an added address carries no Idempotency-Key claim: the
// answer is known only after the hypervisor's push, past the write that records it.
const AddAddressExempt = "an address added before a crash shows in the machine's addresses: the retry with the key is answered 409, and the machine read says whether it was added"

// RemoveAddressDescription is what the document says of the route that removes one.
const RemoveAddressDescription = "Takes one of the machine's addresses away (an IPv6 prefix is named by its first address or the machine's ::1 in it): " +
	"the hypervisor stops letting the machine use it, then the pool releases it with the cool-down of a machine's delete (its reverse name is cleared), in the same step as the machine's record. " +
	"The machine's first address, its primary, goes only with the machine: 409 conflict. An address the machine does not hold is 404. Answers 200 with the machine."

// AddressRoutes are the routes of one machine's addresses under vm (a machine's path,
// whose parameter param names it), for access, with query declared and the tenant
// scope the caller has.
func AddressRoutes(vm, param, tag string, access api.Access, query map[string]string, svc api.Services, scope func(*api.Call) (*string, error)) []api.Route {
	h := addressHandlers{svc: svc, param: param, scope: scope}
	return []api.Route{
		{Method: "POST", Path: vm + "/addresses", Access: access, Handler: h.add, Tag: tag, Query: query,
			Summary: "Give the machine one more address from the IP pools", Body: machines.AddressRequest{}, Reply: machines.Machine{},
			Status: fasthttp.StatusCreated, Errors: []int{fasthttp.StatusServiceUnavailable}, Description: AddAddressDescription,
			Exempt: AddAddressExempt},
		{Method: "DELETE", Path: vm + "/addresses/{address}", Access: access, Handler: h.remove, Tag: tag, Query: query,
			Summary: "Take one of the machine's addresses away (not its primary)", Reply: machines.Machine{},
			Description: RemoveAddressDescription},
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

func (h addressHandlers) add(c *api.Call) (any, error) {
	scope, err := h.scope(c)
	if err != nil {
		return nil, err
	}
	// The machine first: an unknown one (or another tenant's) is a 404 whatever the body.
	if _, err := h.svc.Machines.Get(c.Context(), c.Param(h.param), scope); err != nil {
		return nil, err
	}
	var b machines.AddressRequest
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	return h.svc.Machines.AddAddress(c.Context(), c.Param(h.param), scope, b)
}

func (h addressHandlers) remove(c *api.Call) (any, error) {
	scope, err := h.scope(c)
	if err != nil {
		return nil, err
	}
	return h.svc.Machines.RemoveAddress(c.Context(), c.Param(h.param), scope, c.Param("address"))
}
