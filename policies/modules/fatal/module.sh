#!/bin/sh
# Negating a hard class is fatal for the whole agent run.
echo "+before"
echo "-linux"
echo "+after"
