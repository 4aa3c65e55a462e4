package httpedge

import (
	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/actors/webhooks"
	"github.com/vmplane/vmplane/httpedge/accounts"
	"github.com/vmplane/vmplane/httpedge/openapi"
	"github.com/vmplane/vmplane/hypervisor"
)

// limits are the bounds that request bodies' `openapi` tags name (limit=NAME), each the
// constant of the service that also enforces it: the document states it and the edge
// checks it from the tag, and the service checks the same constant for every caller.
// A tag spells a number only where no service checks it (TestLimitsNamed).
var limits = openapi.Limits{
	"machine.name":      {Min: machines.MinNameLen, Max: machines.MaxNameLen},
	"machine.cores":     {Min: machines.MinCores, Max: machines.MaxCores},
	"machine.memory_mb": {Min: machines.MinMemoryMB, Max: machines.MaxMemoryMB},
	"machine.disk_gb":   {Min: machines.MinDiskGB, Max: machines.MaxDiskGB},
	"machine.password":  {Min: machines.MinPasswordLen, Max: machines.MaxPasswordLen},
	"machine.ssh_keys":  {Min: 0, Max: machines.MaxSSHKeys},
	"machine.ssh_key":   {Min: 1, Max: machines.MaxSSHKeyLen},
	"machine.vlan":      {Min: 0, Max: machines.MaxVLAN},
	"machine.rate_mbps": {Min: 0, Max: machines.MaxRateMbps},
	"backup.retention":  {Min: backups.MinRetention, Max: backups.MaxRetention},
	"backup.note":       {Min: 0, Max: machines.MaxBackupNoteLen},

	"snapshot.name":        {Min: hypervisor.MinSnapshotNameLen, Max: hypervisor.MaxSnapshotNameLen},
	"snapshot.description": {Min: 0, Max: hypervisor.MaxSnapshotDescriptionLen},

	"iso.name":     {Min: 1, Max: isos.MaxNameLen},
	"iso.url":      {Min: 1, Max: isos.MaxURLLen},
	"iso.checksum": {Min: 1, Max: isos.MaxChecksumLen},
	"boot.order":   {Min: 1, Max: len(hypervisor.BootDevices)},

	"tenant.name":  {Min: tenants.MinNameLen, Max: tenants.MaxNameLen},
	"tenant.quota": {Min: tenants.Unlimited, Max: tenants.MaxQuotaLimit},
	// A suspension's reason, which the tenant's users are shown.
	"suspension.reason": {Min: 1, Max: tenants.MaxReasonLen},

	"plan.name":        {Min: plans.MinNameLen, Max: plans.MaxNameLen},
	"location.name":    {Min: locations.MinNameLen, Max: locations.MaxNameLen},
	"location.text":    {Min: 0, Max: locations.MaxTextLen},
	"plan.ipv4":        {Min: 0, Max: plans.MaxIPv4},
	"plan.ipv6_prefix": {Min: plans.MinIPv6Prefix, Max: plans.MaxIPv6Prefix},
	"plan.count":       {Min: 0, Max: plans.MaxCount},
	"plan.templates":   {Min: 0, Max: plans.MaxTemplates},

	"webhook.url":     {Min: 1, Max: webhooks.MaxURLLen},
	"webhook.events":  {Min: 1, Max: webhooks.MaxEvents},
	"webhook.secret":  {Min: webhooks.MinSecretLen, Max: webhooks.MaxSecretLen},
	"ip_pool.name":    {Min: addresses.MinNameLen, Max: addresses.MaxNameLen},
	"ip_pool.cidr":    {Min: 1, Max: addresses.MaxCIDRLen},
	"ip_pool.address": {Min: 1, Max: addresses.MaxAddressLen},
	"ip_pool.dns":     {Min: 0, Max: addresses.MaxDNS},
	"address.ptr":     {Min: 0, Max: addresses.MaxPTRLen},
	// An added address's IP version: 4 or 6 (the machines refuse 5).
	"address.version": {Min: machines.MinAddressVersion, Max: machines.MaxAddressVersion},

	"user.name":     {Min: auth.MinUserNameLen, Max: auth.MaxUserNameLen},
	"user.email":    {Min: auth.MinEmailLen, Max: auth.MaxEmailLen},
	"user.password": {Min: auth.MinPasswordLen, Max: auth.MaxPasswordLen},
	"external_id":   {Min: 1, Max: auth.MaxExternalIDLen},
	"login.email":   {Min: 1, Max: auth.MaxEmailLen},
	// A login's password and a refresh token.
	"login.credential": {Min: 1, Max: accounts.MaxCredentialLen},
	"totp.code":        {Min: 1, Max: signin.MaxCodeLen},

	"apikey.name":   {Min: auth.MinKeyNameLen, Max: auth.MaxKeyNameLen},
	"apikey.scopes": {Min: 1, Max: len(auth.Scopes)},
	"apikey.cidrs":  {Min: 0, Max: auth.MaxKeyCIDRs},
	"apikey.cidr":   {Min: 1, Max: auth.MaxKeyCIDRLen},

	"rule.comment": {Min: 0, Max: hypervisor.MaxRuleComment},
	"rule.value":   {Min: 0, Max: hypervisor.MaxRuleValueLen},

	// Names a request gives of the hypervisor's things; a tag adds minLength=1 where
	// an empty one is no name.
	"hypervisor.name":         {Min: 0, Max: hypervisor.MaxNameLen},
	"hypervisor.interfaces":   {Min: 0, Max: hypervisor.MaxInterfaces},
	"hypervisor.interface_id": {Min: 0, Max: hypervisor.MaxInterfaceIDLen},

	"schedule.cron":     {Min: 0, Max: schedules.MaxCronLen},
	"schedule.timezone": {Min: 0, Max: schedules.MaxTimezoneLen},

	// Any id a request names (machine, tenant, template, ...).
	"id": {Min: 0, Max: maxIDLen},

	"check.name":            {Min: monitoring.MinCheckNameLen, Max: monitoring.MaxCheckNameLen},
	"check.target":          {Min: 1, Max: monitoring.MaxCheckTargetLen},
	"check.interval_s":      {Min: monitoring.MinCheckIntervalS, Max: monitoring.MaxCheckIntervalS},
	"check.timeout_ms":      {Min: monitoring.MinCheckTimeoutMS, Max: monitoring.MaxCheckTimeoutMS},
	"check.expected_status": {Min: 0, Max: monitoring.MaxExpectedStatus},
	// On a create, 0 (or no value) is the default threshold.
	"check.failure_threshold_or_default": {Min: 0, Max: monitoring.MaxFailureThreshold},
	"check.failure_threshold":            {Min: monitoring.MinFailureThreshold, Max: monitoring.MaxFailureThreshold},
}

// maxIDLen bounds an id in a request: ours are ULIDs (26 characters) and a template's
// is the hypervisor's; a longer one names nothing, and is refused before a lookup.
const maxIDLen = 64

func init() { openapi.NameLimits(limits) }
