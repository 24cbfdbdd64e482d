groupadd -g 23101 cfsimg1
groupadd -g 23102 cfsimg2
groupadd -g 23103 cfsimg3
