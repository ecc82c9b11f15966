int count = "seven";
