# deal script made by bridgeshape-mirror {VERSION}; seats: opener North (dealer), opp1 East, responder South, opp2 West
# run it: deal -s SEED -i file.tcl N (N deals)
# page: Splinter
# scenario 2 of 2: major
# DSL: major: opener S:5+ hcp:12-21; responder S:3+
# accepts exactly the deals of this scenario: exact probability 646878433502431/21249331742182880 = 0.0304423

main {
  reject unless {(
    (
      [spades north] >= 5 &&
      [hcp north] >= 12 &&
      [hcp north] <= 21
    ) &&
    [spades south] >= 3
  )}
  accept
}
