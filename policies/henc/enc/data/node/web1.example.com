-ntp_client
+yes
=environment=staging
=users[alice]=admin
=users[bob]=dev
