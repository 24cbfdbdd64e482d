//! The machine's network links from one rtnetlink dump (`RTM_GETLINK`): name, index, device flags,
//! carrier and hardware address of every interface, what local discovery otherwise reads from
//! `/sys/class/net/<name>/{ifindex,flags,carrier,address}` (four files per interface). Linux only;
//! `None` (and the caller reads sysfs) wherever the socket cannot be had or the answer is malformed.

/// One link as the kernel lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub name: String,
    pub index: u32,
    /// The device flags (`ifi_flags`, `IFF_*`).
    pub flags: u32,
    /// `IFLA_CARRIER`: whether the link has a carrier (`None` when the kernel did not say).
    pub carrier: Option<bool>,
    /// `IFLA_ADDRESS`: the hardware address bytes.
    pub address: Vec<u8>,
}

const NLMSG_HDR: usize = 16;
const IFINFOMSG: usize = 16;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const RTM_NEWLINK: u16 = 16;
const RTM_GETLINK: u16 = 18;
const NLM_F_REQUEST: u16 = 0x1;
const NLM_F_DUMP: u16 = 0x300;
const IFLA_ADDRESS: u16 = 1;
const IFLA_IFNAME: u16 = 3;
const IFLA_CARRIER: u16 = 33;
const IFLA_EXT_MASK: u16 = 29;
/// `RTEXT_FILTER_SKIP_STATS`: the kernel leaves out each link's counters (`IFLA_STATS*`), which it
/// sums over every CPU per device and which discovery does not read: the dump took ~5% of a small
/// `cfsim agent` run's CPU with them (perf). Kernels before 4.16 ignore the bit and send them.
const RTEXT_FILTER_SKIP_STATS: u32 = 1 << 3;
/// An `rtattr` holding one `u32`.
const RTATTR_U32: usize = 8;
/// The most messages read for one dump (a machine with thousands of interfaces gets sysfs instead).
const MAX_RECVS: usize = 256;

/// Every link of the machine, or `None` when netlink is not available or answered something else.
pub fn links() -> Option<Vec<Link>> {
    use rustix::net::{
        netlink::SocketAddrNetlink, recv, sendto, socket, AddressFamily, RecvFlags, SendFlags,
        SocketType,
    };
    // NETLINK_ROUTE is protocol 0
    let fd = socket(AddressFamily::NETLINK, SocketType::RAW, None).ok()?;
    let len = NLMSG_HDR + IFINFOMSG + RTATTR_U32;
    let mut req = Vec::with_capacity(len);
    req.extend_from_slice(&(len as u32).to_ne_bytes());
    req.extend_from_slice(&RTM_GETLINK.to_ne_bytes());
    req.extend_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    req.extend_from_slice(&1u32.to_ne_bytes()); // sequence number
    req.extend_from_slice(&0u32.to_ne_bytes()); // port id: the kernel assigns it
    req.resize(NLMSG_HDR + IFINFOMSG, 0); // ifinfomsg: AF_UNSPEC, every link
    req.extend_from_slice(&(RTATTR_U32 as u16).to_ne_bytes());
    req.extend_from_slice(&IFLA_EXT_MASK.to_ne_bytes());
    req.extend_from_slice(&RTEXT_FILTER_SKIP_STATS.to_ne_bytes());
    sendto(&fd, &req, SendFlags::empty(), &SocketAddrNetlink::new(0, 0)).ok()?;
    let mut out = Vec::new();
    // received into spare capacity: a zeroed buffer would cost a 32 KiB memset (~33,000
    // instructions, 2% of a small agent run) for bytes the kernel overwrites
    let mut buf: Vec<u8> = Vec::with_capacity(32 << 10);
    for _ in 0..MAX_RECVS {
        buf.clear();
        let (n, _) = recv(
            &fd,
            rustix::buffer::spare_capacity(&mut buf),
            RecvFlags::empty(),
        )
        .ok()?;
        if n == 0 {
            return None;
        }
        match parse_messages(&buf, &mut out)? {
            Step::Done => return Some(out),
            Step::More => {}
        }
    }
    None
}

enum Step {
    More,
    Done,
}

/// The messages of one `recv`: links appended to `out`; `Done` at `NLMSG_DONE`; `None` on an error
/// message or a malformed one.
fn parse_messages(mut data: &[u8], out: &mut Vec<Link>) -> Option<Step> {
    while data.len() >= NLMSG_HDR {
        let len = u32_at(data, 0)? as usize;
        let kind = u16_at(data, 4)?;
        if len < NLMSG_HDR || len > data.len() {
            return None;
        }
        let body = data.get(NLMSG_HDR..len)?;
        match kind {
            NLMSG_DONE => return Some(Step::Done),
            NLMSG_ERROR => return None,
            RTM_NEWLINK => out.push(parse_link(body)?),
            _ => {}
        }
        data = data.get(align4(len).min(data.len())..)?;
    }
    Some(Step::More)
}

/// An `RTM_NEWLINK` body: `ifinfomsg` (family, pad, type, index, flags, change), then attributes.
fn parse_link(body: &[u8]) -> Option<Link> {
    let index = u32_at(body, 4)?;
    let flags = u32_at(body, 8)?;
    let mut link = Link {
        name: String::new(),
        index,
        flags,
        carrier: None,
        address: Vec::new(),
    };
    let mut attrs = body.get(IFINFOMSG..)?;
    while attrs.len() >= 4 {
        let len = usize::from(u16_at(attrs, 0)?);
        let kind = u16_at(attrs, 2)? & 0x3fff; // without NLA_F_NESTED / NLA_F_NET_BYTEORDER
        if len < 4 || len > attrs.len() {
            return None;
        }
        let value = attrs.get(4..len)?;
        match kind {
            IFLA_IFNAME => {
                let text = value.split(|b| *b == 0).next().unwrap_or(value);
                link.name = String::from_utf8_lossy(text).into_owned();
            }
            IFLA_ADDRESS => link.address = value.to_vec(),
            IFLA_CARRIER => link.carrier = value.first().map(|c| *c != 0),
            _ => {}
        }
        attrs = attrs.get(align4(len).min(attrs.len())..)?;
    }
    (!link.name.is_empty()).then_some(link)
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn attr(kind: u16, value: &[u8]) -> Vec<u8> {
        let mut a = Vec::new();
        a.extend_from_slice(&((4 + value.len()) as u16).to_ne_bytes());
        a.extend_from_slice(&kind.to_ne_bytes());
        a.extend_from_slice(value);
        a.resize(align4(a.len()), 0);
        a
    }

    fn message(kind: u16, body: &[u8]) -> Vec<u8> {
        let mut m = Vec::new();
        m.extend_from_slice(&((NLMSG_HDR + body.len()) as u32).to_ne_bytes());
        m.extend_from_slice(&kind.to_ne_bytes());
        m.extend_from_slice(&[0; 10]);
        m.extend_from_slice(body);
        m.resize(align4(m.len()), 0);
        m
    }

    fn newlink(index: u32, flags: u32, attrs: &[Vec<u8>]) -> Vec<u8> {
        let mut body = vec![0u8; 4];
        body.extend_from_slice(&index.to_ne_bytes());
        body.extend_from_slice(&flags.to_ne_bytes());
        body.extend_from_slice(&0u32.to_ne_bytes());
        for a in attrs {
            body.extend_from_slice(a);
        }
        message(RTM_NEWLINK, &body)
    }

    #[test]
    fn a_dump_gives_each_links_name_index_flags_carrier_and_address() {
        let mut data = newlink(
            2,
            0x1043,
            &[
                attr(IFLA_IFNAME, b"eth0\0"),
                attr(IFLA_CARRIER, &[1]),
                attr(IFLA_ADDRESS, &[2, 0xfc, 0, 0, 0, 1]),
                attr(99, &[7; 9]),
            ],
        );
        data.extend(newlink(5, 0x82, &[attr(IFLA_IFNAME, b"ifb0\0")]));
        let mut out = Vec::new();
        assert!(matches!(parse_messages(&data, &mut out), Some(Step::More)));
        assert_eq!(
            out,
            vec![
                Link {
                    name: "eth0".into(),
                    index: 2,
                    flags: 0x1043,
                    carrier: Some(true),
                    address: vec![2, 0xfc, 0, 0, 0, 1],
                },
                Link {
                    name: "ifb0".into(),
                    index: 5,
                    flags: 0x82,
                    carrier: None,
                    address: Vec::new(),
                },
            ]
        );
        assert!(matches!(
            parse_messages(&message(NLMSG_DONE, &[0; 4]), &mut out),
            Some(Step::Done)
        ));
    }

    #[test]
    fn errors_and_malformed_messages_give_none() {
        let mut out = Vec::new();
        assert!(parse_messages(&message(NLMSG_ERROR, &[0; 20]), &mut out).is_none());
        // a message longer than what was received
        let mut m = newlink(1, 0, &[attr(IFLA_IFNAME, b"lo\0")]);
        m.truncate(m.len() - 4);
        assert!(parse_messages(&m, &mut out).is_none());
        // an attribute longer than its message
        let mut body = vec![0u8; IFINFOMSG];
        body.extend_from_slice(&200u16.to_ne_bytes());
        body.extend_from_slice(&IFLA_IFNAME.to_ne_bytes());
        assert!(parse_messages(&message(RTM_NEWLINK, &body), &mut out).is_none());
        // a link without a name
        assert!(parse_messages(&newlink(3, 0, &[]), &mut out).is_none());
        assert!(out.is_empty());
    }
}
