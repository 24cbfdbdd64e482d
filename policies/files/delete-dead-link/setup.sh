ln -s does-not-exist dead
