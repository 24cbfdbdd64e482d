#!/bin/sh
# module for context_meta.cf: ^context, ^meta, a bad context, an unknown extended command
echo "=in_default=d"
echo "^context=custom_ctx"
echo "=in_custom=c"
echo "^meta=inventory,mytag"
echo "=tagged=t"
echo "+tagged_class"
echo "^context=bad-ctx!"
echo "=still_custom=s"
echo "^unknown=1"
