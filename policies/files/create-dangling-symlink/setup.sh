ln -s nowhere/target dangling
