module example.com/hierarchy

go 1.19
