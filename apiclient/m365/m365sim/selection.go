package m365sim

import (
	"net/http"
	"slices"
)

// domainProps are the domain resource's properties [doc].
var domainProps = []string{"authenticationType", "availabilityStatus", "id", "isAdminManaged", "isDefault", "isInitial", "isRoot",
	"isVerified", "passwordNotificationWindowInDays", "passwordValidityPeriodInDays", "state", "supportedServices"}

// recordProps are domainDnsRecord's properties [doc]: those of its derived
// types (text, mailExchange, …) cannot be selected on a collection of it.
var recordProps = []string{"id", "isOptional", "label", "recordType", "supportedService", "ttl"}

// userProps are the user resource's properties in Graph v1.0 [doc user
// resource]: what a user's $select may name.
var userProps = []string{"aboutMe", "accountEnabled", "ageGroup", "assignedLicenses", "assignedPlans", "authorizationInfo",
	"birthday", "businessPhones", "city", "companyName", "consentProvidedForMinor", "country", "createdDateTime", "creationType",
	"customSecurityAttributes", "deletedDateTime", "department", "displayName", "employeeHireDate", "employeeId",
	"employeeLeaveDateTime", "employeeOrgData", "employeeType", "externalUserState", "externalUserStateChangeDateTime",
	"faxNumber", "givenName", "hireDate", "id", "identities", "imAddresses", "interests", "isManagementRestricted",
	"isResourceAccount", "jobTitle", "lastPasswordChangeDateTime", "legalAgeGroupClassification", "licenseAssignmentStates",
	"mail", "mailboxSettings", "mailNickname", "mobilePhone", "mySite", "officeLocation", "onPremisesDistinguishedName",
	"onPremisesDomainName", "onPremisesExtensionAttributes", "onPremisesImmutableId", "onPremisesLastSyncDateTime",
	"onPremisesProvisioningErrors", "onPremisesSamAccountName", "onPremisesSecurityIdentifier", "onPremisesSyncEnabled",
	"onPremisesUserPrincipalName", "otherMails", "passwordPolicies", "passwordProfile", "pastProjects", "postalCode",
	"preferredDataLocation", "preferredLanguage", "preferredName", "provisionedPlans", "proxyAddresses", "responsibilities",
	"schools", "securityIdentifier", "serviceProvisioningErrors", "showInAddressList", "signInActivity",
	"signInSessionsValidFromDateTime", "skills", "state", "streetAddress", "surname", "usageLocation", "userPrincipalName",
	"userType"}

// selection is the $select of a request for one type of Graph.
type selection struct {
	s     *Server
	names []string // what $select names; none: every property
	props []string // the type's properties
	typ   string   // the type's name, as Graph's error gives it
}

// apply keeps the properties of m that the selection names (all of them
// when it names none), and those of keep; a name that is no property of
// the type is refused as Graph refuses it [field:
// msgraph-beta-sdk-dotnet#563, a derived type's property].
func (sel selection) apply(m map[string]any, keep ...string) (map[string]any, reply, bool) {
	if len(sel.names) == 0 {
		return m, reply{}, true
	}
	if rep, valid := sel.check(); !valid {
		return nil, rep, false
	}
	out := map[string]any{}
	for _, p := range sel.names {
		if v, ok := m[p]; ok {
			out[p] = v
		}
	}
	for _, k := range keep {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out, reply{}, true
}

// check refuses a selection that names what is no property of the type,
// as Graph refuses it.
func (sel selection) check() (reply, bool) {
	for _, p := range sel.names {
		if !slices.Contains(sel.props, p) {
			return failure(http.StatusBadRequest, "BadRequest", "Parsing OData Select and Expand failed: Could not find a property named '"+
				p+"' on type 'microsoft.graph."+sel.typ+"'."), false
		}
	}
	return reply{}, true
}

// records is a domain's collection of domainDnsRecords as Graph answers
// it: with its @odata.context, each record with the properties the
// selection names (and its @odata.type).
func (sel selection) records(name, kind string, vals []map[string]any) reply {
	out := make([]map[string]any, 0, len(vals))
	for _, v := range vals {
		m, rep, valid := sel.apply(v, "@odata.type")
		if !valid {
			return rep
		}
		out = append(out, m)
	}
	return ok(map[string]any{"@odata.context": graphContext + "domains('" + name + "')/" + kind, "value": out})
}
