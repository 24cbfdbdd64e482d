//! Host clock arithmetic without a date crate: civil date from epoch days, RFC 3339 parsing, `ctime()`
//! formatting (`sys.date`), cf-agent's time classes (local and `GMT_` copies), and a minimal TZif
//! reader used by local discovery for the UTC offset (`/etc/localtime`; the footer TZ rule is ignored,
//! so times after the last listed transition keep its offset).

use super::HostTime;

/// A broken-down civil time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    /// 1..=12
    pub month: u32,
    /// 1..=31
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// 0 = Sunday … 6 = Saturday
    pub weekday: u32,
}

pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Days since 1970-01-01 → (year, month, day) (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    (y, m as u32, d as u32)
}

/// (year, month, day) → days since 1970-01-01.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Break `epoch + offset` seconds into civil time.
pub fn civil(epoch: i64, offset: i32) -> Civil {
    let t = epoch + i64::from(offset);
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Civil {
        year,
        month,
        day,
        hour: (secs / 3600) as u32,
        minute: ((secs % 3600) / 60) as u32,
        second: (secs % 60) as u32,
        weekday: (days + 4).rem_euclid(7) as u32,
    }
}

/// `ctime()` without the newline: `Sat Nov 21 07:16:16 2026` (day space-padded).
pub fn ctime(c: &Civil) -> String {
    let wd = WEEKDAYS.get(c.weekday as usize).map_or("???", |s| &s[..3]);
    let mo = MONTHS
        .get(c.month.saturating_sub(1) as usize)
        .map_or("???", |s| &s[..3]);
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {}",
        wd, mo, c.day, c.hour, c.minute, c.second, c.year
    )
}

/// Parse an RFC 3339 timestamp (`2026-11-21T07:16:16Z`, `…+01:00`, fractional seconds ignored) into
/// (epoch seconds, UTC offset seconds). `Err` names what was wrong.
pub fn parse_rfc3339(s: &str) -> Result<(i64, i32), String> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Result<i64, String> {
        let part = s
            .get(from..from + len)
            .ok_or_else(|| "too short".to_string())?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return Err(format!("`{part}` is not a number"));
        }
        part.parse::<i64>().map_err(|e| e.to_string())
    };
    if b.len() < 20 {
        return Err("too short for YYYY-MM-DDTHH:MM:SS plus a zone".into());
    }
    let sep_ok = b.get(4) == Some(&b'-')
        && b.get(7) == Some(&b'-')
        && matches!(b.get(10), Some(b'T' | b't' | b' '))
        && b.get(13) == Some(&b':')
        && b.get(16) == Some(&b':');
    if !sep_ok {
        return Err("separators must be YYYY-MM-DDTHH:MM:SS".into());
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (h, mi, se) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return Err("date or time field out of range".into());
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b.get(i + 3) == Some(&b':') => {
            let oh = num(i + 1, 2)?;
            let om = num(i + 4, 2)?;
            if oh > 23 || om > 59 {
                return Err("zone offset out of range".into());
            }
            let v = (oh * 3600 + om * 60) as i32;
            if *sign == b'-' {
                -v
            } else {
                v
            }
        }
        _ => return Err("zone must be `Z` or `+HH:MM`/`-HH:MM`".into()),
    };
    let days = days_from_civil(y, mo as u32, d as u32);
    let local = days * 86_400 + h * 3600 + mi * 60 + se.min(59);
    Ok((local - i64::from(offset), offset))
}

/// Format epoch + offset as RFC 3339 (`Z` for a zero offset).
pub fn format_rfc3339(epoch: i64, offset: i32) -> String {
    let c = civil(epoch, offset);
    let zone = if offset == 0 {
        "Z".to_string()
    } else {
        let sign = if offset < 0 { '-' } else { '+' };
        let a = offset.unsigned_abs();
        format!("{}{:02}:{:02}", sign, a / 3600, (a % 3600) / 60)
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}",
        c.year, c.month, c.day, c.hour, c.minute, c.second, zone
    )
}

/// Tags cf-agent gives every time class.
pub const TIME_CLASS_TAGS: &str = "time_based,cfengine_internal_time_based_autoremove,source=agent";

/// cf-agent's time classes for one broken-down time, each name prefixed with `prefix` (`""` or `GMT_`).
pub fn time_class_names(c: &Civil, prefix: &str) -> Vec<String> {
    let q = c.minute / 15 + 1;
    let slot = (c.minute / 5) * 5;
    let shift = match c.hour {
        0..=5 => "Night",
        6..=11 => "Morning",
        12..=17 => "Afternoon",
        _ => "Evening",
    };
    let mut v = vec![
        format!("Yr{:04}", c.year),
        MONTHS
            .get(c.month.saturating_sub(1) as usize)
            .unwrap_or(&"January")
            .to_string(),
        WEEKDAYS
            .get(c.weekday as usize)
            .unwrap_or(&"Sunday")
            .to_string(),
        format!("Day{}", c.day),
        format!("Hr{:02}", c.hour),
        format!("Hr{}", c.hour),
        format!("Q{q}"),
        format!("Hr{:02}_Q{q}", c.hour),
        format!("Min{:02}", c.minute),
        format!("Min{:02}_{:02}", slot, (slot + 5) % 60),
        shift.to_string(),
        format!("Lcycle_{}", c.year.rem_euclid(3)),
    ];
    for n in &mut v {
        n.insert_str(0, prefix);
    }
    v
}

/// Time classes of a host: local ones, then the `GMT_` copies.
pub fn time_classes(t: &HostTime) -> Vec<String> {
    let mut v = time_class_names(&civil(t.epoch, t.utc_offset), "");
    v.extend(time_class_names(&civil(t.epoch, 0), "GMT_"));
    v
}

/// UTC offset in force at `epoch` according to TZif data (`/etc/localtime`); `None` if unreadable.
pub fn tzif_offset(data: &[u8], epoch: i64) -> Option<i32> {
    if data.get(0..4)? != b"TZif" {
        return None;
    }
    let be32 = |at: usize| -> Option<u32> {
        let s = data.get(at..at + 4)?;
        Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    };
    // v1 header counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt at offset 20.
    let timecnt = be32(32)? as usize;
    let typecnt = be32(36)? as usize;
    let trans_at = 44;
    let idx_at = trans_at + timecnt * 4;
    let types_at = idx_at + timecnt;
    let mut type_idx: usize = 0;
    for i in 0..timecnt {
        let t = i64::from(be32(trans_at + i * 4)? as i32);
        if t <= epoch {
            type_idx = usize::from(*data.get(idx_at + i)?);
        } else {
            break;
        }
    }
    if type_idx >= typecnt {
        return None;
    }
    Some(be32(types_at + type_idx * 6)? as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_roundtrip_and_ctime() {
        // 1795247847 = Sat Nov 21 07:57:27 2026 UTC (recorded sys.systime / sys.date pair).
        let c = civil(1_795_247_847, 0);
        assert_eq!(ctime(&c), "Sat Nov 21 07:57:27 2026");
        assert_eq!(days_from_civil(2026, 11, 21), 20_778);
        assert_eq!(civil_from_days(20_778), (2026, 11, 21));
        assert_eq!(ctime(&civil(0, 0)), "Thu Jan  1 00:00:00 1970");
    }

    #[test]
    fn rfc3339() {
        assert_eq!(
            parse_rfc3339("2026-11-21T07:57:27Z"),
            Ok((1_795_247_847, 0))
        );
        assert_eq!(
            parse_rfc3339("2026-11-21T08:57:27+01:00"),
            Ok((1_795_247_847, 3600))
        );
        assert_eq!(
            parse_rfc3339("2026-11-21T08:57:27.5+01:00"),
            Ok((1_795_247_847, 3600))
        );
        assert!(parse_rfc3339("2026-11-21 08:57").is_err());
        assert!(parse_rfc3339("2026-13-21T08:57:27Z").is_err());
        assert_eq!(
            format_rfc3339(1_795_247_847, 3600),
            "2026-11-21T08:57:27+01:00"
        );
    }

    #[test]
    fn tzif_transitions() {
        // Minimal TZif: two transitions (t=100 → type 1, t=200 → type 0), types +3600 and +7200.
        let mut d = b"TZif2".to_vec();
        d.extend([0u8; 15]);
        for n in [0u32, 0, 0, 2, 2, 4] {
            d.extend(n.to_be_bytes());
        }
        d.extend(100u32.to_be_bytes());
        d.extend(200u32.to_be_bytes());
        d.extend([1u8, 0]);
        d.extend(3600i32.to_be_bytes());
        d.extend([0u8, 0]);
        d.extend(7200i32.to_be_bytes());
        d.extend([1u8, 0]);
        d.extend(b"AB\0\0");
        assert_eq!(tzif_offset(&d, 50), Some(3600));
        assert_eq!(tzif_offset(&d, 150), Some(7200));
        assert_eq!(tzif_offset(&d, 250), Some(3600));
        assert_eq!(tzif_offset(b"nope", 0), None);
    }

    #[test]
    fn five_minute_slot_wraps() {
        let c = civil(
            days_from_civil(2026, 11, 21) * 86_400 + 7 * 3600 + 57 * 60,
            0,
        );
        let v = time_class_names(&c, "");
        assert!(v.contains(&"Min55_00".to_string()));
        assert!(v.contains(&"Hr07_Q4".to_string()));
        assert!(v.contains(&"Lcycle_1".to_string()));
    }
}
