//! Time functions: now, ago, accumulated, on, laterthan, strftime. Calendar arithmetic is done here
//! (proleptic Gregorian, `mktime`-style normalisation); the clock and the local UTC offset come from the
//! host.

use super::args::int_arg;
use super::{def, CallCtx, FnArg, FnDef, FnResult};
use crate::host::time::{MONTHS, WEEKDAYS as DAYS};
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("now", false, now),
    def("ago", false, ago),
    def("accumulated", true, accumulated),
    def("on", false, on),
    def("laterthan", false, laterthan),
    def("strftime", false, strftime),
];

/// Days since 1970-01-01 of a civil date (month 1-12); the calendar arithmetic is `host::time`'s.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let m = u32::try_from(m.clamp(1, 12)).unwrap_or(1);
    crate::host::time::days_from_civil(y, m, 1) + d - 1
}

/// Civil date (year, month 1-12, day) of a day number.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let (y, m, d) = crate::host::time::civil_from_days(z);
    (y, i64::from(m), i64::from(d))
}

/// `timegm` with `mktime` normalisation of out-of-range fields (month 0-based).
pub fn timegm(year: i64, mon0: i64, mday: i64, h: i64, mi: i64, s: i64) -> i64 {
    let y = year + mon0.div_euclid(12);
    let m = mon0.rem_euclid(12) + 1;
    let days = days_from_civil(y, m, 1) + mday - 1;
    days * 86_400 + h * 3600 + mi * 60 + s
}

/// Broken-down time.
#[derive(Debug, Clone, Copy)]
pub struct Tm {
    pub year: i64,
    pub mon0: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: i64,
    pub wday: i64,
    pub yday: i64,
}

/// Breaks down seconds since the epoch (already shifted to the wanted zone).
pub fn gmtime(t: i64) -> Tm {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    Tm {
        year: y,
        mon0: m - 1,
        mday: d,
        hour: secs / 3600,
        min: secs % 3600 / 60,
        sec: secs % 60,
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(y, 1, 1),
    }
}

fn now(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Ok(Value::int(ctx.host.now()))
}

fn local_mktime(
    ctx: &CallCtx<'_>,
    year: i64,
    mon0: i64,
    mday: i64,
    h: i64,
    mi: i64,
    s: i64,
) -> i64 {
    let t = timegm(year, mon0, mday, h, mi, s);
    t - ctx.host.utc_offset(t)
}

fn ago(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let n = ctx.host.now();
    let tm = gmtime(n + ctx.host.utc_offset(n));
    let v: Vec<i64> = a.iter().map(int_arg).collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    let t = local_mktime(
        ctx,
        tm.year - get(0),
        tm.mon0 - get(1),
        tm.mday - get(2),
        tm.hour - get(3),
        tm.min - get(4),
        tm.sec - get(5),
    );
    Ok(Value::int(t.max(0)))
}

fn accumulated(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v: Vec<i64> = a.iter().map(int_arg).collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    Ok(Value::int(
        get(0) * 365 * 86_400
            + get(1) * 30 * 86_400
            + get(2) * 86_400
            + get(3) * 3600
            + get(4) * 60
            + get(5),
    ))
}

/// `on()`'s conversion as recorded on 3.21.0: the month argument is used as a 0-based month and the
/// day as a 0-based day (`on(1970,1,1,0,0,0)` is 1970-02-02).
fn on_epoch(ctx: &CallCtx<'_>, a: &[FnArg]) -> i64 {
    let v: Vec<i64> = a.iter().map(int_arg).collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    local_mktime(ctx, get(0), get(1), get(2) + 1, get(3), get(4), get(5))
}

fn on(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::int(on_epoch(ctx, a)))
}

fn laterthan(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v: Vec<i64> = a.iter().map(int_arg).collect();
    let get = |i: usize| v.get(i).copied().unwrap_or(0);
    let t = local_mktime(ctx, get(0), get(1) - 1, get(2), get(3), get(4), get(5));
    Ok(Value::context(ctx.host.now() > t))
}

fn short(s: &str) -> &str {
    s.get(..3).unwrap_or(s)
}

/// ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, i64) {
    let wday = (tm.wday + 6) % 7;
    let mut year = tm.year;
    let mut week = (tm.yday - wday + 10) / 7;
    if week < 1 {
        year -= 1;
        let prev_yday = tm.yday + days_in_year(year);
        week = (prev_yday - wday + 10) / 7;
    } else if week > 52 {
        let ylen = days_in_year(tm.year);
        if tm.yday - wday + 3 >= ylen {
            year += 1;
            week = 1;
        }
    }
    (year, week)
}

fn days_in_year(y: i64) -> i64 {
    if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
        366
    } else {
        365
    }
}

/// C `strftime` for the conversions glibc supports; unknown ones are copied as is.
pub fn format_tm(fmt: &str, tm: &Tm, epoch: i64, offset: i64, zone: &str) -> String {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let month = MONTHS.get(tm.mon0 as usize).copied().unwrap_or("");
    let day = DAYS.get(tm.wday as usize).copied().unwrap_or("");
    let h12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        while matches!(chars.peek(), Some('E' | 'O')) {
            chars.next();
        }
        let Some(k) = chars.next() else {
            out.push('%');
            break;
        };
        let s = match k {
            'Y' => tm.year.to_string(),
            'm' => format!("{:02}", tm.mon0 + 1),
            'd' => format!("{:02}", tm.mday),
            'e' => format!("{:2}", tm.mday),
            'H' => format!("{:02}", tm.hour),
            'k' => format!("{:2}", tm.hour),
            'I' => format!("{h12:02}"),
            'l' => format!("{h12:2}"),
            'M' => format!("{:02}", tm.min),
            'S' => format!("{:02}", tm.sec),
            'p' => if tm.hour < 12 { "AM" } else { "PM" }.into(),
            'P' => if tm.hour < 12 { "am" } else { "pm" }.into(),
            'a' => short(day).into(),
            'A' => day.into(),
            'b' | 'h' => short(month).into(),
            'B' => month.into(),
            'y' => format!("{:02}", tm.year.rem_euclid(100)),
            'C' => format!("{:02}", tm.year.div_euclid(100)),
            'j' => format!("{:03}", tm.yday + 1),
            'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
            'w' => tm.wday.to_string(),
            'U' => format!("{:02}", (tm.yday + 7 - tm.wday) / 7),
            'W' => format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7),
            'V' => format!("{:02}", iso_week(tm).1),
            'G' => iso_week(tm).0.to_string(),
            'g' => format!("{:02}", iso_week(tm).0.rem_euclid(100)),
            's' => epoch.to_string(),
            'n' => "\n".into(),
            't' => "\t".into(),
            '%' => "%".into(),
            'F' => format!("{}-{:02}-{:02}", tm.year, tm.mon0 + 1, tm.mday),
            'T' => format!("{:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec),
            'R' => format!("{:02}:{:02}", tm.hour, tm.min),
            'D' | 'x' => format!(
                "{:02}/{:02}/{:02}",
                tm.mon0 + 1,
                tm.mday,
                tm.year.rem_euclid(100)
            ),
            'X' => format!("{:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec),
            'r' => format!(
                "{h12:02}:{:02}:{:02} {}",
                tm.min,
                tm.sec,
                if tm.hour < 12 { "AM" } else { "PM" }
            ),
            'c' => format!(
                "{} {} {:2} {:02}:{:02}:{:02} {}",
                short(day),
                short(month),
                tm.mday,
                tm.hour,
                tm.min,
                tm.sec,
                tm.year
            ),
            'z' => {
                let sign = if offset < 0 { '-' } else { '+' };
                let o = offset.abs();
                format!("{sign}{:02}{:02}", o / 3600, o % 3600 / 60)
            }
            'Z' => zone.into(),
            other => format!("%{other}"),
        };
        out.push_str(&s);
    }
    out
}

fn strftime(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let epoch = int_arg(&a[2]);
    let (offset, zone) = if a[0].text() == "localtime" {
        let off = ctx.host.utc_offset(epoch);
        (
            off,
            if off == 0 {
                "UTC".to_string()
            } else {
                String::new()
            },
        )
    } else {
        (0, "GMT".to_string())
    };
    let tm = gmtime(epoch + offset);
    Ok(Value::str(format_tm(
        a[1].text(),
        &tm,
        epoch,
        offset,
        &zone,
    )))
}
