printf 'escaped: {{html}}\nraw3: {{{html}}}\nraw&: {{&html}}\n{{#flag}}flag is true\n{{/flag}}{{^off}}off is false\n{{/off}}{{^missing}}missing is falsy\n{{/missing}}users:\n{{#users}}- {{name}} ({{uid}})\n{{/users}}map:\n{{#map}}{{@}}={{.}}\n{{/map}}json:\n{{%%map}}\ncompact: {{$users}}\n{{=<%% %%>=}}new delimiters: <%% name %%>\n' > f.mustache
chmod 0644 f.mustache
touch -d '2026-01-01 00:00:00' f.mustache
