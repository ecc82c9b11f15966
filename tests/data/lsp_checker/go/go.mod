module example.com/checker

go 1.19
