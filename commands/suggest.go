package commands

// subCommands are the words that may follow each command.
var subCommands = map[string][]string{
	CmdDomain:  {"register", "status", "check", "help"},
	CmdMailbox: {"add", "reset", "block", "unblock", "list", "help"},
}

// didYouMean returns " Did you mean <command> <sub>?" for the sub-command
// of command closest to word (at most two edits away, a swap of two
// neighbouring letters counting as one), or "".
func didYouMean(command, word string) string {
	best, bestDist := "", 3
	for _, sub := range subCommands[command] {
		if d := editDistance(word, sub); d < bestDist {
			best, bestDist = sub, d
		}
	}
	if best == "" {
		return ""
	}
	return " Did you mean " + command + " " + best + "?"
}

// editDistance is the optimal string alignment distance of a and b, by
// bytes (the sub-commands are ASCII): insertions, deletions,
// substitutions and swaps of neighbours. Words over 20 bytes are far from
// every sub-command.
func editDistance(a, b string) int {
	if len(a) > 20 || len(b) > 20 {
		return 99
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
