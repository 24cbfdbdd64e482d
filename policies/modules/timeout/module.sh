#!/bin/sh
# A module killed by exec_timeout: lines printed before the timeout count.
echo "+early"
sleep 4
echo "+late"
