"""Cards, boards (number, dealer, vulnerability, turn), PBN text and the formats' byte rows."""
