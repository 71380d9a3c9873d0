dopo 1NT: opener hcp:15-17 shape:balancd; responder H: 5+ hcp:8+ // opner S:5+ hcp:12-21 responder s:4+
