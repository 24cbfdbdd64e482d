+dc_eu
=site=eu-west
