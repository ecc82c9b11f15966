package bad

var Count int = "seven"
