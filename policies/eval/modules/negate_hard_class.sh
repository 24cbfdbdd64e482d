#!/bin/sh
# module for negate_hard_class.cf: tries to undefine a hard class
echo "+before_negation"
echo "-linux"
echo "+after_negation"
