# deal script made by bridgeshape-mirror {VERSION}; seats: opener North (dealer), opp1 East, responder South, opp2 West
# run it: deal -s SEED -i file.tcl N (N deals)
# page: Splinter
# scenario 1 of 2: (no label)
# DSL: opener H:5+ hcp:12-21
# accepts exactly the deals of this scenario: exact probability 3845040573/63501355960 = 0.0605505

main {
  reject unless {(
    [hearts north] >= 5 &&
    [hcp north] >= 12 &&
    [hcp north] <= 21
  )}
  accept
}
