// Package usage keeps what each machine used, hour by hour, for the invoices of a
// billing system: machine-hours per plan, allocated core-, memory- and disk-hours,
// backup and snapshot storage, and traffic. A cluster-wide job closes each hour once
// (Close): it writes one record per tenant and hour with a conditional create, so a
// second member or a restart that closes the same hour again counts nothing twice.
// Answers (Tenant, Machine) are sums of those records, never recomputed from samples,
// so reading the same hours twice gives the same numbers.
package usage
