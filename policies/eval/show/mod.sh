#!/bin/sh
# module for module_and_cli_classes.cf
echo "+module_class"
echo "^meta=m1"
echo "+module_tagged_class"
echo "=mv=module value"
