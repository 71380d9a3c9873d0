opener H:7+ x:0-1 hcp:5-10
