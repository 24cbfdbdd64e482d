ln -s b a
ln -s a b
