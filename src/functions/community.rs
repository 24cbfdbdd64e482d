//! Functions the reference build (community cf-agent 3.21.0, Debian package, no libcurl, no LDAP)
//! answers without doing anything: the Enterprise-only LDAP functions fail with its error, `url_get`
//! fails because libcurl is not compiled in, and the hub/remote queries return their community stubs
//! (`""`, `any`) without connecting anywhere (recorded: policies/functions/counts/community_stubs).

use super::{def, CallCtx, FnArg, FnDef, FnResult};
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("ldaparray", false, ldap),
    def("ldaplist", false, ldap),
    def("ldapvalue", false, ldap),
    def("regldap", false, ldap),
    def("url_get", false, url_get),
    def("hubknowledge", false, empty_string),
    def("remotescalar", false, empty_string),
    def("remoteclassesmatching", false, remoteclassesmatching),
];

fn ldap(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Err(ctx.fail("LDAP support only available in CFEngine Enterprise"))
}

fn url_get(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Err(ctx.fail("url_get: libcurl integration is not compiled into CFEngine, sorry"))
}

fn empty_string(_: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Ok(Value::str(""))
}

fn remoteclassesmatching(_: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Ok(Value::context(true))
}
