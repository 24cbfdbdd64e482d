groupadd -g 23101 cfsimg1
useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1
